const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'machine', rootDir: __dirname };
