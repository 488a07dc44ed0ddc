/** The event stream's reader lives in the SDK now (`client.events.stream()`); the CLI and older imports use it here. */
export { openEventStream, type OpenEventStreamOptions } from '../sdk/event-stream.js'
