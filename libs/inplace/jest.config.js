const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'inplace', rootDir: __dirname };
