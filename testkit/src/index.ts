export { freePort } from './free-port.js';
export { type NatsServer, natsServerBinary, startNatsServer } from './nats-server.js';
