import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Business } from '@/api/app-config';
import { termsItems } from '@/config/terms';
import { termsDocuments } from './index';

interface Row {
  type: string;
  required: boolean;
  version: string;
}

/** The documents and versions the server records consents to (domain `Terms`). */
const tablePath = path.resolve(import.meta.dirname, '../../../../../testdata/terms.json');
const table = JSON.parse(fs.readFileSync(tablePath, 'utf8')) as Row[];

const business = {} as Business;

describe('the terms the server records', () => {
  it('are the documents the modal lists, required alike', () => {
    expect(termsItems.map((item) => ({ type: item.type, required: item.required }))).toEqual(
      table.map((row) => ({ type: row.type, required: row.required })),
    );
  });

  it('are at the versions the pages show', () => {
    for (const [index, item] of termsItems.entries()) {
      const document = termsDocuments[item.slug](business);
      expect(document.effectiveDate, item.type).toBe(table[index]?.version);
      expect(document.required, item.type).toBe(item.required);
    }
  });
});
