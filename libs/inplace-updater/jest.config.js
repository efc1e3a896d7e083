const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'inplace-updater', rootDir: __dirname };
