// Cases: listing, reading and triaging them, and their notes.
import listCases from './list-cases.js';
import getCase from './get-case.js';
import updateCase from './update-case.js';
import createCaseNote from './create-case-note.js';

export const caseRoutes = [listCases, getCase, updateCase, createCaseNote] as const;
