import { loadOnce } from '../../local/function-registry';

/** The local runtime loads each function's module once, like a warm Lambda; a failed load is tried again. */
describe('local function registry', () => {
  test('a module is loaded once and then kept', async () => {
    let loads = 0;
    const get = loadOnce('test', async () => ++loads);
    expect(await Promise.all([get(), get()])).toEqual([1, 1]);
    expect(await get()).toBe(1);
    expect(loads).toBe(1);
  });

  test('a load that failed is not kept: the next request loads again', async () => {
    let loads = 0;
    const get = loadOnce('test', async () => {
      loads += 1;
      if (loads === 1) throw new Error('transient');
      return 'handler';
    });
    await expect(get()).rejects.toThrow('transient');
    expect(await get()).toBe('handler');
    expect(await get()).toBe('handler');
    expect(loads).toBe(2);
  });
});
