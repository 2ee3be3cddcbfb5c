// Cases as a feature: what it gives the scan's commit (opening and joining cases with the flagged
// scans, src/write-kinds.ts hands it to the verifications' kind of write).
export { openOrJoinCases } from './opening.js';
