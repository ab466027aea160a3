import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { FakeGraph } from '../helpers/fake-graph.js';
import { graphWebhook, hubSignature } from '../helpers/whatsapp.js';
import { startE2E, type E2E, type Person } from './harness.js';

// Customers' files in the console: a WhatsApp customer sends a picture and a document; the server
// downloads them from the (fake) Graph API, and the agent sees the picture in the conversation, opens
// it full size in a new tab, and downloads the document.

/** A solid-colour RGB PNG of `w`×`h`, big enough to see and click. */
function png(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(w * 3, Buffer.from([0x25, 0x9b, 0x6a]))]);
  const raw = Buffer.concat(Array.from({ length: h }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const PHONE_NUMBER_ID = '106540352242977';
const APP_SECRET = 'e2e-app-secret';

describe('media in the console', () => {
  let e2e: E2E;
  let graph: FakeGraph;
  let ana: Person;
  let channelId: string;

  before(async () => {
    graph = await FakeGraph.start();
    e2e = await startE2E({ env: { WHATSAPP_GRAPH_BASE_URL: graph.url } });
    ana = await e2e.createUser({ name: 'Ana Souza' });
    const team = await e2e.createTeam('Suporte', [ana.id]);
    const channel = await e2e.admin.api.ok<{ id: string }>('POST', '/api/channels', {
      name: 'WhatsApp',
      provider: 'whatsapp-cloud',
      defaultTeamId: team.id,
      providerConfig: {
        phoneNumberId: PHONE_NUMBER_ID,
        accessToken: 'test-token',
        appSecret: APP_SECRET,
        verifyToken: 'e2e-verify',
      },
    });
    channelId = channel.id;
  });
  after(async () => {
    await e2e?.close();
    await graph?.close();
  });

  /** A signed Meta webhook delivery with one customer message. */
  async function webhook(message: Record<string, unknown>): Promise<void> {
    const raw = JSON.stringify(
      graphWebhook(PHONE_NUMBER_ID, {
        contacts: [{ profile: { name: 'Joana Prado' }, wa_id: '5511987651234' }],
        messages: [{ from: '5511987651234', timestamp: '1744344496', ...message }],
      }),
    );
    const res = await fetch(`${e2e.url}/webhooks/whatsapp/${channelId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': hubSignature(APP_SECRET, raw) },
      body: raw,
    });
    assert.equal(res.status, 200, await res.text());
  }

  it('an inbound image shows inline and opens full size; a document downloads', async () => {
    const image = png(320, 200);
    const pdf = Buffer.from('%PDF-1.4\n% Atende e2e\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
    graph.addMedia('wa-media-image', { bytes: image, mimetype: 'image/png' });
    graph.addMedia('wa-media-doc', { bytes: pdf, mimetype: 'application/pdf' });

    const tab = await e2e.newPage('ana');
    const { page, context } = tab;
    await e2e.loginUi(page, ana);
    await page.locator('.shell[data-conn="online"]').waitFor();

    await webhook({
      id: 'wamid.e2e.image',
      type: 'image',
      image: { id: 'wa-media-image', mime_type: 'image/png', caption: 'Foto do produto' },
    });
    const item = page.locator('.chat-item', { hasText: 'Joana Prado' });
    await item.waitFor();
    await item.getByRole('link').click();

    // The picture appears in place once downloaded (live, through message.update), really decoded.
    const img = page.locator('.messages .msg img.msg-media-view');
    await img.waitFor();
    await page.waitForFunction(
      (el) => (el as { complete?: boolean; naturalWidth?: number } | null)?.naturalWidth === 320,
      await img.elementHandle(),
    );
    assert.equal(await img.getAttribute('alt'), 'Foto do produto');
    await e2e.screenshot(page, 'media-image');

    // Clicking it opens the file full size in a new tab.
    const [opened] = await Promise.all([context.waitForEvent('page'), img.click()]);
    await opened.waitForLoadState();
    assert.match(opened.url(), /\/api\/messages\/[0-9a-f]{24}\/media$/);
    const shown = opened.locator('img');
    await shown.waitFor();
    await opened.waitForFunction(
      (el) => (el as { naturalWidth?: number } | null)?.naturalWidth === 320,
      await shown.elementHandle(),
    );
    await opened.close();

    // A document is a download link with its name; the download carries the exact bytes.
    await webhook({
      id: 'wamid.e2e.doc',
      type: 'document',
      document: { id: 'wa-media-doc', mime_type: 'application/pdf', filename: 'Orçamento 2025.pdf' },
    });
    const link = page.locator('.messages a.msg-media-doc', { hasText: 'Orçamento 2025.pdf' });
    await link.waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.equal(download.suggestedFilename(), 'Orçamento 2025.pdf');
    const file = await download.path();
    assert.ok(file, 'the download was saved');
    assert.deepEqual(await readFile(file), pdf);
    await e2e.screenshot(page, 'media-document');

    e2e.assertNoBrowserErrors();
  });

  it('an agent’s own picture attachment shows inline too', async () => {
    const chats = await ana.api.ok<{ chats: { id: string }[] }>('GET', '/api/chats?queue=Espera');
    const chatId = chats.chats[0]!.id;
    await ana.api.ok('POST', `/api/chats/${chatId}/capture`);
    const tab = await e2e.newPage('ana-reply');
    const { page } = tab;
    await e2e.loginUi(page, ana);
    await page.goto(`${e2e.url}/inbox/${chatId}`);
    await page.locator('.messages a.msg-media-doc').waitFor();
    await page.getByTestId('attach-input').setInputFiles({
      name: 'etiqueta.png',
      mimeType: 'image/png',
      buffer: png(240, 120),
    });
    await page.locator('.composer-attachment', { hasText: 'etiqueta.png' }).waitFor();
    await page.getByRole('button', { name: 'Enviar' }).click();
    const img = page.locator('.messages .msg.out img.msg-media-view');
    await img.waitFor();
    await page.waitForFunction(
      (el) => (el as { naturalWidth?: number } | null)?.naturalWidth === 240,
      await img.elementHandle(),
    );
    e2e.assertNoBrowserErrors();
  });
});
