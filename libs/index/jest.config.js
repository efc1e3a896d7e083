const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'index', rootDir: __dirname };
