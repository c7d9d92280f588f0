import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The range the OS hands out for outgoing connections' local ports (Linux; the common default
 * elsewhere). A port picked from it and then released can be taken by any outgoing connection
 * (the suite makes thousands) before the process meant to listen on it does.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low > 1024 && high >= low) return [low, high];
  } catch {
    // Not Linux: the IANA dynamic range.
  }
  return [49152, 65535];
}

function canListen(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      const bound = typeof address === 'object' && address ? address.port : undefined;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * A port free right now for a process that must be told its port before it starts (tests never use
 * the default ports). It is picked at random below the ephemeral range, so no outgoing connection
 * takes it between this check and the listen; only if none is found there, one the OS picks.
 */
export async function freePort(): Promise<number> {
  const [low] = ephemeralRange();
  const first = 10_000;
  if (low - first > 1_000) {
    for (let attempt = 0; attempt < 50; attempt++) {
      const port = first + Math.floor(Math.random() * (low - first));
      if ((await canListen(port)) !== undefined) return port;
    }
  }
  const port = await canListen(0);
  if (port === undefined) throw new Error('no free port');
  return port;
}
