import { Messages } from '../../errors';
import { messageAnd, messageOnly } from '../openapi';
import { laravelPage, laravelPageSchema, queryVariables, type Route } from './route';

/**
 * Folders and labels of assistants, on the original platform's paths (its MCP server's eight
 * tools: lists as Laravel's page object, writes as `{message, data}`, deletes as `{message}`)
 * and the singular `/user/folder/{id}` and `/user/label/{id}` its documentation uses.
 */
const FIELDS = 'id name color assistants_count created_at updated_at';

interface Kind {
  plural: 'folders' | 'labels';
  singular: 'folder' | 'label';
  type: 'Folder' | 'Label';
  notFound: string;
  created: string;
  updated: string;
  deleted: string;
}

function badgeRoutes(kind: Kind): Route[] {
  const { plural, singular, type } = kind;
  const update = (path: string): Route => ({
    method: 'PUT',
    path,
    summary: `Rename a ${singular} or change its color: only the fields sent change (color null removes it)`,
    body: 'input',
    envelope: messageAnd(),
    document: `mutation Update${type}($id: Int!, $input: Update${type}Input!) { update${type}(id: $id, input: $input) { ${FIELDS} } }`,
    variables: (req) => ({ id: req.params.id, input: req.body }),
    respond: (data) => ({ body: { message: kind.updated, data: data[`update${type}`] } }),
    rejectUnknownFields: true,
    notFound: kind.notFound,
  });
  const remove = (path: string): Route => ({
    method: 'DELETE',
    path,
    summary:
      singular === 'folder' ? 'Delete a folder: its assistants stay, in no folder' : 'Delete a label: it is taken off its assistants, which stay',
    envelope: messageOnly,
    document: `mutation Delete${type}($id: Int!) { delete${type}(id: $id) }`,
    variables: (req) => ({ id: req.params.id }),
    respond: () => ({ body: { message: kind.deleted } }),
    notFound: kind.notFound,
  });
  return [
    {
      method: 'GET',
      path: `/user/${plural}`,
      summary: `The account’s ${plural}, oldest first, each with its assistants_count, as Laravel’s page object`,
      query: ['page', 'per_page'],
      envelope: laravelPageSchema,
      document: `query ${type}s($page: Int, $per_page: Int) { ${plural}(page: $page, per_page: $per_page) { data { ${FIELDS} } current_page per_page total last_page from to } }`,
      variables: (req) => queryVariables(req.query, ['page', 'per_page']),
      respond: (data, req) => ({ body: laravelPage(data[plural], req.url) }),
    },
    {
      method: 'POST',
      path: `/user/${plural}`,
      summary: `Create a ${singular}: name unique in the account (case aside), color optional`,
      status: 201,
      body: 'input',
      envelope: messageAnd(),
      document: `mutation Create${type}($input: Create${type}Input!) { create${type}(input: $input) { ${FIELDS} } }`,
      variables: (req) => ({ input: req.body }),
      respond: (data) => ({ body: { message: kind.created, data: data[`create${type}`] } }),
      rejectUnknownFields: true,
    },
    update(`/user/${plural}/{id}`),
    update(`/user/${singular}/{id}`),
    remove(`/user/${plural}/{id}`),
    remove(`/user/${singular}/{id}`),
  ];
}

export const folderRoutes: Route[] = [
  ...badgeRoutes({
    plural: 'folders',
    singular: 'folder',
    type: 'Folder',
    notFound: Messages.folderNotFound,
    created: Messages.folderCreated,
    updated: Messages.folderUpdated,
    deleted: Messages.folderDeleted,
  }),
  ...badgeRoutes({
    plural: 'labels',
    singular: 'label',
    type: 'Label',
    notFound: Messages.labelNotFound,
    created: Messages.labelCreated,
    updated: Messages.labelUpdated,
    deleted: Messages.labelDeleted,
  }),
];
