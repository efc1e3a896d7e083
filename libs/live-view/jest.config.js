const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'live-view', rootDir: __dirname };
