import type { Browser } from 'playwright-core';
import { startTestApp, type TestAccount, type TestApp } from '../helpers/app';
import { axe, buildConsole, launch, runInBrowser, screenshot, signIn } from '../helpers/console-browser';

/**
 * The phone numbers page (issue 58) in Debian's chromium against a server on the simulator
 * (its fixed inventory): search by country and digits with each number's monthly price, buy
 * one after a confirmation that names the charge (the balance shown lower after, as the API
 * and the ledger have it), a purchase the balance does not cover refused with the API's
 * message, a nickname set, the number released after a confirmation; a bad country named
 * beside its field; axe-core finds nothing serious.
 */
let app: TestApp;
let browser: Browser | undefined;
let me: TestAccount;

beforeAll(async () => {
  buildConsole();
  app = await startTestApp();
  // Enough for one Berlin number (2.00 a month), not two.
  me = await app.account({ balance: '3.5' });
  await app.phoneNumber(me.accountId, '+5511955001234', { sms: true });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

const owned = () => app.sql<{ number: string; nickname: string | null }>('select number, nickname from phone_numbers where account_id = $1 order by id', [me.accountId]);

runInBrowser(
  'searches numbers with their monthly price, buys one (the balance lower after), refuses one the balance does not cover, names it and releases it',
  async () => {
    browser ??= await launch();
    const page = await (await browser.newContext({ viewport: { width: 1360, height: 900 } })).newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signIn(page, app.url, me.token);
    await page.getByRole('link', { name: 'Phone numbers' }).click();
    await page.waitForSelector('tr[data-number]');
    const balance = page.getByTestId('numbers-balance');
    expect(await balance.innerText()).toBe('3.50 EUR');
    expect(await page.locator('tr[data-number] td.num').innerText()).toBe('Not billed here');
    const problems = await axe(page, 'phone-numbers');

    // A country that is not one: the API's message beside the field.
    await page.getByLabel(/^Country/).fill('X');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('#buy-country-error').waitFor();
    expect(await page.locator('#buy-country-error').innerText()).toBe('Country must be a two-letter ISO code (BR, US, DE).');

    // Berlin's numbers with 30, each with its price, as the API offers them.
    await page.getByLabel(/^Country/).fill('de');
    await page.getByLabel(/^Contains/).fill('30');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForSelector('tr[data-offer]');
    const offered = await app.graphql('{ availablePhoneNumbers(country_code: "DE", contains: "30") { phone_number monthly_price } }', {}, me.token);
    expect(offered.body.data.availablePhoneNumbers).toEqual([
      { phone_number: '+4930123456', monthly_price: 2 },
      { phone_number: '+4930900001', monthly_price: 2 },
    ]);
    expect(await page.locator('tr[data-offer]').evaluateAll((rows) => rows.map((row: any) => [row.dataset.offer, row.querySelector('.monthly-price').textContent.trim()]))).toEqual([
      ['+4930123456', '2.00 EUR'],
      ['+4930900001', '2.00 EUR'],
    ]);

    // Buy: the confirmation names the charge; then the number is the account's and the balance 2.00 lower.
    await page.getByRole('button', { name: 'Buy +4930123456…' }).click();
    const confirm = page.getByRole('group', { name: 'Buy +4930123456?' });
    expect(await confirm.innerText()).toContain('Buy +4930123456: 2.00 EUR now, then each month');
    problems.push(...(await axe(page, 'phone-numbers-buy')));
    await confirm.getByRole('button', { name: 'Buy for 2.00 EUR' }).click();
    await page.getByRole('status').filter({ hasText: 'Bought +4930123456' }).waitFor();
    await page.locator('tr[data-number]', { hasText: '+4930123456' }).waitFor();
    await page.getByTestId('numbers-balance').filter({ hasText: '1.50 EUR' }).waitFor();
    const [{ balance: after }] = await app.sql('select balance::text from accounts where id = $1', [me.accountId]);
    expect(Number(after)).toBe(1.5);
    const ledger = await app.sql("select amount::text from ledger_entries where account_id = $1 and kind = 'phone_number'", [me.accountId]);
    expect(ledger.map((row: any) => Number(row.amount))).toEqual([-2]);
    expect(await page.locator('tr[data-number]', { hasText: '+4930123456' }).locator('td.num').innerText()).toBe('2.00 EUR');
    // It is no longer on offer.
    await page.locator('tr[data-offer="+4930123456"]').waitFor({ state: 'detached' });

    // The second does not fit in the balance: the API's refusal, nothing bought.
    await page.getByRole('button', { name: 'Buy +4930900001…' }).click();
    await page.getByRole('group', { name: 'Buy +4930900001?' }).getByRole('button', { name: 'Buy for 2.00 EUR' }).click();
    const refusal = page.getByRole('group', { name: 'Buy +4930900001?' }).locator('.notice-error');
    await refusal.waitFor();
    expect(await refusal.innerText()).toBe('The balance is too low: add credit to the account first.');
    expect((await owned()).map((row) => row.number)).toEqual(['+5511955001234', '+4930123456']);
    expect(await balance.innerText()).toBe('1.50 EUR');

    // A nickname.
    const row = page.locator('tr[data-number]', { hasText: '+4930123456' });
    await row.getByRole('button', { name: 'Rename +4930123456' }).click();
    await row.getByLabel('Nickname of +4930123456').fill('  Berlin office ');
    await row.getByRole('button', { name: 'Save' }).click();
    await row.locator('.nickname', { hasText: 'Berlin office' }).waitFor();
    expect((await owned())[1]).toEqual({ number: '+4930123456', nickname: 'Berlin office' });
    await screenshot(page, 'phone-numbers');

    // Release, after a confirmation: gone from the page and the account.
    await row.getByRole('button', { name: 'Release +4930123456…' }).click();
    const release = page.getByRole('group', { name: 'Release +4930123456?' });
    expect(await release.innerText()).toContain('cannot be taken back');
    problems.push(...(await axe(page, 'phone-numbers-release')));
    await release.getByRole('button', { name: 'Release +4930123456' }).click();
    await page.locator('tr[data-number]', { hasText: '+4930123456' }).waitFor({ state: 'detached' });
    expect((await owned()).map((row) => row.number)).toEqual(['+5511955001234']);
    expect(problems).toEqual([]);
    expect(pageErrors).toEqual([]);
  },
  120_000,
);
