const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'kcp', rootDir: __dirname };
