import { SYSTEM_LISTS } from './system-list-data';

export { SYSTEM_LISTS };

export type SystemListName = keyof typeof SYSTEM_LISTS;
export type SystemListValue<Name extends SystemListName> = (typeof SYSTEM_LISTS)[Name][number]['value'];

export function isSystemListName(name: string): name is SystemListName {
  return Object.prototype.hasOwnProperty.call(SYSTEM_LISTS, name);
}

/** The values of a list, for a validator's enum. */
export function listValues<Name extends SystemListName>(name: Name): [SystemListValue<Name>, ...SystemListValue<Name>[]] {
  return SYSTEM_LISTS[name].map((entry) => entry.value) as unknown as [SystemListValue<Name>, ...SystemListValue<Name>[]];
}
