// Builds the pinned binaries (or finds them cached) in the main vitest process, so test workers
// never race each other into a cold build.
import { e2eBinaries } from './control-plane.js';

export default function setup(): void {
  e2eBinaries();
}
