// Wallet answers that are not a signature, in two kinds: the visitor said no, or the wallet failed.

export class WalletError extends Error {
  constructor(
    message: string,
    readonly declined: boolean,
  ) {
    super(message);
    this.name = 'WalletError';
  }
}

// CIP-30: APIError Refused (-3), DataSignError UserDeclined (3); EIP-1193: 4001 user rejected, 4100 unauthorized.
const DECLINED = new Set([-3, 3, 4001, 4100]);

/** Whatever a wallet threw (CIP-30 `{code, info}`, EIP-1193 `{code, message}`, or an Error) as a WalletError. */
export function walletError(thrown: unknown): WalletError {
  const e = (thrown ?? {}) as { code?: unknown; info?: unknown; message?: unknown };
  const text = typeof e.info === 'string' ? e.info : typeof e.message === 'string' ? e.message : String(thrown);
  return new WalletError(text, typeof e.code === 'number' && DECLINED.has(e.code));
}

/** Runs one wallet call; what it throws becomes a WalletError. */
export async function fromWallet<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (thrown) {
    throw walletError(thrown);
  }
}
