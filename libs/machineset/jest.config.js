const preset = require('../../jest.preset.js');

module.exports = { ...preset, displayName: 'machineset', rootDir: __dirname };
