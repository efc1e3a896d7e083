const preset = require('../jest.preset.js');

module.exports = { ...preset, displayName: 'tools', rootDir: __dirname };
