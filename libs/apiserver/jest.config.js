const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'apiserver', rootDir: __dirname };
