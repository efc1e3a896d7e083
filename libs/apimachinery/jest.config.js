const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'apimachinery', rootDir: __dirname };
