import { RequestError } from '@agentclientprotocol/sdk';
import * as assert from 'node:assert/strict';

/** The JSON-RPC error a host call rejected with; fails when it resolved or threw something else. */
export async function rejection(promise: Promise<unknown>): Promise<RequestError> {
  try {
    await promise;
  } catch (err) {
    assert.ok(err instanceof RequestError, `a RequestError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a rejection');
}
