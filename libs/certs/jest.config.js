const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'certs', rootDir: __dirname };
