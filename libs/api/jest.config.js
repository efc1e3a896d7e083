const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'api', rootDir: __dirname };
