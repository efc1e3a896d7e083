const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'runtime-client', rootDir: __dirname };
