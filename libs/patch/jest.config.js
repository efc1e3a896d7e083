const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'patch', rootDir: __dirname };
