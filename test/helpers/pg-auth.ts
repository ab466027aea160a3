import { connect } from 'node:net';

/**
 * How a PostgreSQL server asks a client for its password, read from the wire: the StartupMessage
 * (protocol 3.0) is sent and the server's first answer read. A client library would answer whatever
 * is asked, so only the raw exchange shows whether the password would travel in clear.
 * `cleartext` is AuthenticationCleartextPassword (3), `md5` AuthenticationMD5Password (5), `sasl`
 * AuthenticationSASL (10) with its mechanisms.
 */
export async function passwordRequest(
  port: number,
  user: string,
): Promise<{ kind: 'cleartext' | 'md5' | 'sasl' | 'other'; mechanisms: string[] }> {
  const params = Buffer.from(`user\0${user}\0database\0postgres\0\0`);
  const startup = Buffer.alloc(8 + params.length);
  startup.writeInt32BE(startup.length, 0);
  startup.writeInt32BE(196608, 4);
  params.copy(startup, 8);
  const socket = connect(port, '127.0.0.1');
  try {
    const message = await new Promise<Buffer>((resolve, reject) => {
      let got = Buffer.alloc(0);
      socket.on('error', reject);
      socket.on('close', () => reject(new Error('closed before answering')));
      socket.on('data', (chunk) => {
        got = Buffer.concat([got, chunk]);
        if (got.length >= 5 && got.length >= 1 + got.readInt32BE(1)) resolve(got);
      });
      socket.write(startup);
    });
    if (message[0] !== 'R'.charCodeAt(0)) {
      throw new Error(`not an authentication request: ${message.toString('latin1')}`);
    }
    const code = message.readInt32BE(5);
    const mechanisms = code === 10 ? message.subarray(9).toString('utf8').split('\0').filter(Boolean) : [];
    const kind = code === 3 ? 'cleartext' : code === 5 ? 'md5' : code === 10 ? 'sasl' : 'other';
    return { kind, mechanisms };
  } finally {
    socket.destroy();
  }
}
