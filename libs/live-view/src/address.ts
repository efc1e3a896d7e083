// --live-view-address: where the manager serves the live view. Empty turns it off (the default); ":port" binds the
// loopback interface (the view shows every Cluster the manager sees and has no authentication, so it is not exposed
// unless a host is given); an explicit host is used as given.
import { isIP } from 'node:net';

export interface LiveViewAddress {
  host: string;
  port: number;
  /** False when the host is not a loopback address: the caller warns that the view is reachable from other machines. */
  loopback: boolean;
}

const ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]*):(\d{1,5})$/;

/** Parses the flag's value; undefined when the view is off; throws with what is wrong when the value is malformed. */
export function parseLiveViewAddress(value: string): LiveViewAddress | undefined {
  if (value === '') return undefined;
  const m = ADDRESS.exec(value);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) throw new Error(`${JSON.stringify(value)} must be host:port or :port (empty turns it off)`);
  const host = m[1] === '' ? '127.0.0.1' : m[1].replace(/^\[(.*)\]$/, '$1');
  if (m[1].startsWith('[') && isIP(host) !== 6)
    throw new Error(`${JSON.stringify(value)}: ${host} is not an IPv6 address`);
  return { host, port, loopback: isLoopback(host) };
}

/** localhost, 127.0.0.0/8 and ::1. */
export function isLoopback(host: string): boolean {
  if (host === 'localhost' || host === '::1') return true;
  return isIP(host) === 4 && host.startsWith('127.');
}
