import { createAccount, createOperator, createUser, encodeAccount, encodeOperator, encodeUser, fmtCreds, fromSeed } from '@nats-io/jwt';
import { enginePermissions, gatewayPermissions, type NatsPermissions, operatorPermissions } from './permissions.js';

/**
 * NATS decentralized authentication for cluster mode (docs/architecture.md, "NATS
 * authentication"). One operator and two accounts: the system account, and SWITCHBOARD, which
 * holds every stream and bucket. Users are JWTs the account's signing key issues: one each for
 * the gateway and the operator, made here, and one per session for its engine pod, made by the
 * operator when it creates the pod (`mintEngineCredentials`). The server needs only public
 * parts (the operator and account JWTs); the seeds stay with whoever signs or connects.
 */
export interface NatsAuth {
  /** The nats-server configuration that turns this on: operator, system account, account JWTs. */
  readonly serverConfig: string;
  /** Public key of the SWITCHBOARD account (the issuer account of every user). */
  readonly account: string;
  /** Seed of the account's signing key: whoever holds it can mint users. The operator only. */
  readonly signingKeySeed: string;
  /** Credentials files (user JWT and seed) of the gateway and the operator. */
  readonly gatewayCredentials: string;
  readonly operatorCredentials: string;
  /** Everything in the account: for a person with the `nats` CLI (backups, docs/operations.md); no pod uses it. */
  readonly adminCredentials: string;
}

/** The keys of the Secret that holds a `NatsAuth` (the chart's and the e2e suite's). */
export const NATS_AUTH_SECRET_KEYS = {
  serverConfig: 'auth.conf',
  account: 'account',
  signingKeySeed: 'signing-key.nk',
  gatewayCredentials: 'gateway.creds',
  operatorCredentials: 'operator.creds',
  adminCredentials: 'admin.creds',
} as const satisfies Record<keyof NatsAuth, string>;

/** Unlimited, as nats-server reads a limit of -1; JetStream on (storage limits other than 0). */
const UNLIMITED = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
const JETSTREAM = { mem_storage: -1, disk_storage: -1, streams: -1, consumer: -1, max_ack_pending: -1 };

/** Creates a new operator, accounts, signing key and the gateway's and operator's users. */
export async function createNatsAuth(): Promise<NatsAuth> {
  const operator = createOperator();
  const system = createAccount();
  const account = createAccount();
  const signingKey = createAccount();
  const operatorJwt = await encodeOperator('switchboard', operator, { system_account: system.getPublicKey() });
  const systemJwt = await encodeAccount('SYS', system, { limits: UNLIMITED }, { signer: operator });
  const accountJwt = await encodeAccount(
    'SWITCHBOARD',
    account,
    { limits: { ...UNLIMITED, ...JETSTREAM }, signing_keys: [signingKey.getPublicKey()] },
    { signer: operator },
  );
  const signer = { account: account.getPublicKey(), signingKeySeed: new TextDecoder().decode(signingKey.getSeed()) };
  return {
    serverConfig: [
      '# NATS decentralized auth (operator mode) of Switchboard: generated, public keys and JWTs only.',
      `operator: ${operatorJwt}`,
      `system_account: ${system.getPublicKey()}`,
      'resolver: MEMORY',
      'resolver_preload: {',
      `  ${system.getPublicKey()}: ${systemJwt}`,
      `  ${account.getPublicKey()}: ${accountJwt}`,
      '}',
      '',
    ].join('\n'),
    ...signer,
    gatewayCredentials: await userCredentials(signer, 'gateway', gatewayPermissions()),
    operatorCredentials: await userCredentials(signer, 'operator', operatorPermissions()),
    adminCredentials: await userCredentials(signer, 'admin', {}),
  };
}

/** What signs users: the account's public key and its signing key's seed. */
export type UserSigner = Pick<NatsAuth, 'account' | 'signingKeySeed'>;

/** The credentials of a session's engine pod: its own session's subjects and keys only. */
export function mintEngineCredentials(signer: UserSigner, session: string): Promise<string> {
  return userCredentials(signer, `engine ${session}`, enginePermissions(session));
}

async function userCredentials(signer: UserSigner, name: string, permissions: NatsPermissions | Record<string, never>): Promise<string> {
  const user = createUser();
  const jwt = await encodeUser(name, user, signer.account, { ...permissions }, { signer: fromSeed(new TextEncoder().encode(signer.signingKeySeed)) });
  return new TextDecoder().decode(fmtCreds(jwt, user));
}
