import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { isUuid } from '../ids';
import { getDocumentClient, getTableName } from '../storage/dynamo-client';
import { keys } from '../storage/keys';
import { batchGetAll } from '../storage/paginated-requests';

export type UserRole = 'admin' | 'member';

export interface User {
  id: string;
  organization_id: string;
  name: string;
  email: string;
  role: UserRole;
  is_active: boolean;
  created_at: string;
}

export function userToItem(user: User): Record<string, unknown> {
  return {
    ...keys.user(user.id),
    ...keys.userInOrganization(user.organization_id, user.id),
    entity: 'user',
    ...user,
  };
}

export function userFromItem(item: Record<string, unknown>): User {
  return {
    id: item.id as string,
    organization_id: item.organization_id as string,
    name: item.name as string,
    email: item.email as string,
    role: item.role as UserRole,
    is_active: Boolean(item.is_active),
    created_at: item.created_at as string,
  };
}

export async function getUser(userId: string): Promise<User | undefined> {
  if (!isUuid(userId)) return undefined;
  const result = await getDocumentClient().send(new GetCommand({ TableName: getTableName(), Key: keys.user(userId), ConsistentRead: true }));
  return result.Item ? userFromItem(result.Item) : undefined;
}

/** An active user of this organization, or undefined (another organization's user is no user). */
export async function findActiveUser(organizationId: string, userId: unknown): Promise<User | undefined> {
  if (typeof userId !== 'string' || !isUuid(userId)) return undefined;
  // Users are stored under their lower-case id; a UUID written in upper case is the same user.
  const user = await getUser(userId.toLowerCase());
  return user && user.organization_id === organizationId && user.is_active ? user : undefined;
}

/** Users by id (one BatchGetItem per 100), in no particular order; unknown ids are left out. */
export async function getUsers(userIds: string[]): Promise<User[]> {
  const ids = [...new Set(userIds.filter((id) => isUuid(id)).map((id) => id.toLowerCase()))];
  if (ids.length === 0) return [];
  return (await batchGetAll(ids.map((id) => keys.user(id)))).map(userFromItem);
}
