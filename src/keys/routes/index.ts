// The keys of the key's team and mode: admin keys manage them; every key may read itself.
import listKeys from './list-keys.js';
import getCurrentKey from './get-current-key.js';
import getKey from './get-key.js';
import createKey from './create-key.js';
import rollKey from './roll-key.js';
import revokeKey from './revoke-key.js';

export const keyRoutes = [listKeys, getCurrentKey, getKey, createKey, rollKey, revokeKey] as const;
