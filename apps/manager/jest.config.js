const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'manager', rootDir: __dirname };
