const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'ssa', rootDir: __dirname };
