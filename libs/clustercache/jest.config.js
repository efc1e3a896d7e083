const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'clustercache', rootDir: __dirname };
