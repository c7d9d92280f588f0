import { RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  HttpApi,
  HttpMethod,
  HttpRoute,
  HttpRouteKey,
  HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { API_ROUTES, FALLBACK_GROUP, type FunctionGroup } from '../../shared/http/route-table';
import { ServiceFunction } from './service-function';

/** Extra permissions and environment one group's function needs beyond the table. */
export type GroupAccess = (fn: ServiceFunction) => void;

export interface ServiceHttpApiProps {
  table: ITable;
  /** For example the webhooks group, which also puts test pings and redeliveries on the delivery queue. */
  groupAccess?: Partial<Record<FunctionGroup, GroupAccess>>;
}

/** The stage's default throttle (requests per second, steady and burst). */
export const API_RATE_LIMIT = 1_000;
export const API_BURST_LIMIT = 2_000;

/** Access log fields: the route template, never the raw path (intake tokens are secrets). */
const ACCESS_LOG_FORMAT = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    requestTime: '$context.requestTime',
    routeKey: '$context.routeKey',
    status: '$context.status',
    protocol: '$context.protocol',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    integrationError: '$context.integrationErrorMessage',
  }),
);

/** A group name as a construct id (`mortgage-files` → `MortgageFiles`). */
export function constructId(group: string): string {
  return group
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}

/**
 * The HTTP API: one Lambda per resource group of the shared route table (the same table the
 * local runtime dispatches with), an `ANY` route per path so unsupported methods reach the
 * function and get 405 + Allow, and `$default` to the fallback function for the JSON 404.
 */
export class ServiceHttpApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  /** `{base_url}`: the API endpoint without a trailing slash. */
  readonly baseUrl: string;
  readonly functions = new Map<FunctionGroup, ServiceFunction>();
  private readonly integrations = new Map<IFunction, HttpLambdaIntegration>();

  constructor(scope: Construct, id: string, props: ServiceHttpApiProps) {
    super(scope, id);

    this.api = new HttpApi(this, 'Api', {
      apiName: `${Stack.of(this).stackName}-api`,
      description: 'Mortgage service REST API',
      createDefaultStage: false,
      // No API-level CORS: the functions answer OPTIONS (204) and send the permissive CORS
      // headers themselves, exactly as locally. API Gateway's CORS would also stamp
      // Access-Control-Allow-Origin on the intake route, which browsers must not use (spec §4).
    });
    this.baseUrl = this.api.apiEndpoint;

    const accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // A ceiling for the whole API, far above what the per-key limit (60 a minute) and the intake's
    // (300 per 10 minutes per endpoint) let legitimate traffic reach, so a flood is refused by
    // API Gateway (its own 429) before it takes the account's Lambda concurrency and the table's
    // capacity. `-c apiRateLimit=... -c apiBurstLimit=...` change it.
    const context = (name: string, fallback: number) => {
      const value = Number(this.node.tryGetContext(name) ?? fallback);
      if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
      return value;
    };
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: context('apiRateLimit', API_RATE_LIMIT), burstLimit: context('apiBurstLimit', API_BURST_LIMIT) },
      accessLogSettings: { destination: new LogGroupLogDestination(accessLogs), format: ACCESS_LOG_FORMAT },
    });

    const groups = new Set<FunctionGroup>([...API_ROUTES.map((route) => route.group), FALLBACK_GROUP]);
    for (const group of groups) {
      const fn = new ServiceFunction(this, `${constructId(group)}Function`, {
        functionFolder: group,
        description: `API resource group ${group}`,
        environment: { PUBLIC_BASE_URL: this.baseUrl },
      });
      // The fallback (JSON 404, OpenAPI) never calls DynamoDB: the table's name only, which the configuration requires in Lambda.
      if (group === FALLBACK_GROUP) fn.addEnvironment('TABLE_NAME', props.table.tableName);
      else fn.grantTable(props.table, 'read-write');
      props.groupAccess?.[group]?.(fn);
      this.functions.set(group, fn);
    }

    for (const route of API_ROUTES) this.addFunctionRoute(route.path, this.functions.get(route.group)!, [HttpMethod.ANY]);
    const fallback = this.functions.get(FALLBACK_GROUP)!;
    new HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: this.integrationFor(fallback),
    });
    // API Gateway invokes `$default` as `<api>/<stage>/$default`, which the API-scoped permission
    // (`<api>/*/*/*`: a stage, a method and a path) does not match: without this, every unknown
    // path would be API Gateway's bare 500 instead of the fallback's JSON 404.
    fallback.addPermission('DefaultRouteInvoke', {
      principal: new ServicePrincipal('apigateway.amazonaws.com'),
      sourceArn: Stack.of(this).formatArn({ service: 'execute-api', resource: this.api.apiId, resourceName: '*/$default' }),
    });

    // On the construct, so it also covers routes added later (the intake route).
    Validations.of(this).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'Authorization happens in the functions: every API route checks the x-api-key header against the hashed key items (spec §5); /openapi.json, the JSON 404 and the token-protected intake route are public by the spec.',
    });
  }

  /** Routes `methods` on `path` to `fn`, sharing one integration (and one invoke permission) per function. */
  addFunctionRoute(path: string, fn: IFunction, methods: HttpMethod[]): void {
    this.api.addRoutes({ path, methods, integration: this.integrationFor(fn) });
  }

  private integrationFor(fn: IFunction): HttpLambdaIntegration {
    let integration = this.integrations.get(fn);
    if (!integration) {
      // One API-scoped permission per function instead of one per route keeps the function's
      // resource policy small however many paths a group serves.
      integration = new HttpLambdaIntegration(`${fn.node.id}Integration`, fn, { scopePermissionToRoute: false });
      this.integrations.set(fn, integration);
    }
    return integration;
  }
}
