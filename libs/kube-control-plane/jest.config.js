const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'kube-control-plane', rootDir: __dirname };
