const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'cluster', rootDir: __dirname };
