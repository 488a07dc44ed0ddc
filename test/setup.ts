import '../core/polyfill.js'
