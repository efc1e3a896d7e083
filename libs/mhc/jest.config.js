const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'mhc', rootDir: __dirname };
