import { assistantTestRoutes } from './assistant-tests';
import { assistantRoutes } from './assistants';
import { callRoutes } from './calls';
import { campaignRoutes } from './campaigns';
import { conversationRoutes } from './conversations';
import { dncRoutes } from './dnc';
import { exportRoutes } from './exports';
import { folderRoutes } from './folders';
import { knowledgeRoutes } from './knowledge';
import { leadRoutes } from './leads';
import type { Route } from './route';
import { phoneNumberPurchaseRoutes } from './phone-numbers';
import { sipTrunkRoutes } from './sip-trunks';
import { phoneNumberRoutes, smsRoutes } from './sms';
import { toolRoutes } from './tools';
import { webhookEndpointRoutes } from './webhooks';
import { whatsappRoutes } from './whatsapp';

export type { Route, RouteRequest, RouteResponse } from './route';

/** The whole REST API, below the `/api` base. */
export const routes: Route[] = [...leadRoutes, ...campaignRoutes, ...toolRoutes, ...assistantRoutes, ...assistantTestRoutes, ...callRoutes, ...smsRoutes, ...phoneNumberRoutes, ...phoneNumberPurchaseRoutes, ...sipTrunkRoutes, ...dncRoutes, ...webhookEndpointRoutes, ...exportRoutes, ...knowledgeRoutes, ...conversationRoutes, ...whatsappRoutes, ...folderRoutes];
