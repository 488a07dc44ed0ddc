// rate-limiter-flexible types its index only; server/throttle.ts imports the memory store's own module.
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible'
  export default RateLimiterMemory
}
