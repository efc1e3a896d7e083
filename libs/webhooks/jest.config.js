const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'webhooks', rootDir: __dirname };
