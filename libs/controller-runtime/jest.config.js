const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'controller-runtime', rootDir: __dirname };
