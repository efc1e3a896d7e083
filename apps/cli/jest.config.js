const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'cli', rootDir: __dirname };
