const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'external', rootDir: __dirname };
