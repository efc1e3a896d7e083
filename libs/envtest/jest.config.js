const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'envtest', rootDir: __dirname };
