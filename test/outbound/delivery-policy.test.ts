import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeFailure } from '../../src/modules/outbound/deliver.js';
import { ProviderError } from '../../src/providers/types.js';

// The retry decision shared by Channel API sends and agents' replies.
describe('judgeFailure', () => {
  const temporary = new ProviderError('131000', 'Something went wrong', true);
  const permanent = new ProviderError('131026', 'Message undeliverable', false, 'Not a WhatsApp user');

  it('retries a temporary provider failure until the last attempt', () => {
    assert.equal(judgeFailure(temporary, false, 'x').retry, true);
    assert.deepEqual(judgeFailure(temporary, true, 'x'), {
      retry: false,
      error: { code: '131000', message: 'Something went wrong' },
      byProvider: true,
    });
  });

  it('fails a permanent provider refusal at once, keeping its code, message and details', () => {
    assert.deepEqual(judgeFailure(permanent, false, 'x'), {
      retry: false,
      error: { code: '131026', message: 'Message undeliverable', details: 'Not a WhatsApp user' },
      byProvider: true,
    });
  });

  it('retries anything that is not a provider verdict, and fails it as internal_error on the last attempt', () => {
    const dbDown = new Error('connection refused');
    assert.equal(judgeFailure(dbDown, false, 'The request could not be processed').retry, true);
    assert.deepEqual(judgeFailure(dbDown, true, 'The request could not be processed'), {
      retry: false,
      error: { code: 'internal_error', message: 'The request could not be processed' },
      byProvider: false,
    });
  });
});
