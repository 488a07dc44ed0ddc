import '../chain/polyfill.js'
