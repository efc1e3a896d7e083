const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'inmemory', rootDir: __dirname };
