// Wallet ownership proofs for the extension API (docs/wallets.md).
export { verifyCardanoSignature, type CardanoFailure, type CardanoProof, type WalletVerdict } from './cardano.js';
export { encodeAddress, parseAddress, parseAddressBytes, type ShelleyAddress } from './cip19.js';
export { rpcClient, verifyEthereumSignature, type EthereumFailure, type EthereumProof, type EthereumVerdict } from './ethereum.js';
