import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FunctionUrlAuthType, type FunctionUrl } from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import type { ServiceHttpApi } from './http-api';
import { ServiceFunction } from './service-function';

export interface LeadIntakeProps {
  table: ITable;
  httpApi: ServiceHttpApi;
}

/** Where forms post leads: `{intake_url}/hooks/leads/<token>` on the API, and `{intake_direct_url}/<token>`. */
export const INTAKE_API_PATH = '/hooks/leads/{token}';

/**
 * Public lead intake (spec §4). Two doors to one function: the API route, and a Lambda
 * Function URL, the "direct" address, which sees the caller's real address for IP allow-lists.
 */
export class LeadIntake extends Construct {
  readonly intakeFunction: ServiceFunction;
  readonly directUrl: FunctionUrl;

  constructor(scope: Construct, id: string, props: LeadIntakeProps) {
    super(scope, id);

    this.intakeFunction = new ServiceFunction(this, 'IntakeFunction', {
      functionFolder: 'intake',
      description: 'Public lead intake: token-protected form submissions become leads',
      // Same host as the API; the Function URL cannot be named here (its own URL would be a cycle).
      environment: { PUBLIC_BASE_URL: props.httpApi.baseUrl },
    });
    this.intakeFunction.grantTable(props.table, 'read-write');

    // The token in the path is the credential (spec §4), and browsers are not supported: no CORS.
    this.directUrl = this.intakeFunction.addFunctionUrl({ authType: FunctionUrlAuthType.NONE });

    // POST is the route; ANY lets other methods reach the function for its 405 + Allow.
    props.httpApi.addFunctionRoute(INTAKE_API_PATH, this.intakeFunction, [HttpMethod.POST, HttpMethod.ANY]);
  }
}
