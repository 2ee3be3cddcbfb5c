// The keys of the key's team and mode.
import listKeys from './list-keys.js';
import getKey from './get-key.js';

export const keyRoutes = [listKeys, getKey] as const;
