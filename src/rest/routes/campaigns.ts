import { Messages } from '../../errors';
import { CAMPAIGN_FIELDS } from '../../modules/campaigns/campaign.snapshot';
import { isPlainObject } from '../coerce';
import { messageAnd, messageOnly } from '../openapi';
import type { Route } from './route';

/** A campaign as the API shows it: the same fields its events carry. */
const CAMPAIGN_FRAGMENT = `fragment CampaignFields on Campaign { ${CAMPAIGN_FIELDS.join(' ')} created_at updated_at window_open next_window_at }`;

const deleteCampaign: Omit<Route, 'path'> = {
  method: 'DELETE',
  summary: 'Delete a campaign that is not running, with its leads',
  envelope: messageOnly,
  document: `mutation DeleteCampaign($id: Int!) { deleteCampaign(id: $id) }`,
  variables: (req) => ({ id: req.params.id }),
  respond: () => ({ body: { message: Messages.campaignDeleted } }),
  notFound: Messages.campaignNotFound,
};

/** Campaigns, as design.md's contract gives them (the dialer that runs them comes next). */
export const campaignRoutes: Route[] = [
  {
    method: 'GET',
    path: '/user/campaigns',
    summary: 'List campaigns, oldest first',
    document: `query Campaigns { campaigns { ...CampaignFields } } ${CAMPAIGN_FRAGMENT}`,
    variables: () => ({}),
    respond: (data) => ({ body: data.campaigns }),
  },
  {
    method: 'POST',
    path: '/user/campaigns',
    summary: 'Create a campaign; every field but name has a default',
    status: 201,
    body: 'input',
    envelope: messageAnd(),
    document: `mutation CreateCampaign($input: CreateCampaignInput!) { createCampaign(input: $input) { ...CampaignFields } } ${CAMPAIGN_FRAGMENT}`,
    variables: (req) => ({ input: req.body }),
    respond: (data) => ({ body: { message: Messages.campaignCreated, data: data.createCampaign } }),
  },
  {
    method: 'POST',
    path: '/user/campaigns/update-status',
    summary: 'Start (draft, paused, completed -> running) or stop (running -> paused) a campaign',
    body: ['campaign_id', 'action'],
    envelope: messageAnd(),
    document: `mutation UpdateCampaignStatus($campaign_id: Int!, $action: String!) {
      updateCampaignStatus(campaign_id: $campaign_id, action: $action) { ...CampaignFields }
    } ${CAMPAIGN_FRAGMENT}`,
    variables: (req) => (isPlainObject(req.body) ? { campaign_id: req.body.campaign_id, action: req.body.action } : {}),
    respond: (data) => ({
      body: { message: data.updateCampaignStatus.status === 'running' ? Messages.campaignStarted : Messages.campaignStopped, data: data.updateCampaignStatus },
    }),
  },
  {
    method: 'GET',
    path: '/user/campaigns/{id}',
    summary: 'Get a campaign with its stats',
    document: `query Campaign($id: Int!) {
      campaign(id: $id) { ...CampaignFields stats { leads calls_in_progress attempts total_cost } }
    } ${CAMPAIGN_FRAGMENT}`,
    variables: (req) => ({ id: req.params.id }),
    respond: (data) => ({ body: data.campaign }),
    notFound: Messages.campaignNotFound,
  },
  {
    method: 'PUT',
    path: '/user/campaigns/{id}',
    summary: 'Update a campaign: only the fields sent change, also while it runs',
    body: 'input',
    envelope: messageAnd(),
    document: `mutation UpdateCampaign($id: Int!, $input: UpdateCampaignInput!) {
      updateCampaign(id: $id, input: $input) { ...CampaignFields }
    } ${CAMPAIGN_FRAGMENT}`,
    variables: (req) => ({ id: req.params.id, input: req.body }),
    respond: (data) => ({ body: { message: Messages.campaignUpdated, data: data.updateCampaign } }),
    notFound: Messages.campaignNotFound,
    rejectUnknownFields: true,
  },
  { ...deleteCampaign, path: '/user/campaigns/{id}' },
  // The original platform's clients delete on this path.
  { ...deleteCampaign, path: '/user/campaign/{id}' },
];
