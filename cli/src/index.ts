export { type CliOptions, qrCommand, renderQr, statusCommand } from './commands.js';
