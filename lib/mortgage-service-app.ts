import { Validations, type App } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { StatefulStack } from './stateful-stack';
import { StatelessStack } from './stateless-stack';

export interface MortgageServiceStacks {
  stateful: StatefulStack;
  stateless: StatelessStack;
  /** The AWS Solutions rule pack run on every synth; tests read its report directly. */
  nagChecks: AwsSolutionsChecks;
}

/**
 * Both stacks, environment-agnostic (no account or region, no lookups) so `cdk synth` works
 * offline, and the cdk-nag AWS Solutions checks, which fail the synth on any finding that is
 * not acknowledged with a reason next to the resource that causes it.
 */
export function addMortgageServiceStacks(app: App): MortgageServiceStacks {
  const stateful = new StatefulStack(app, 'MortgageService-Stateful', {
    description: 'Mortgage service: the DynamoDB table (retained on delete)',
  });
  const stateless = new StatelessStack(app, 'MortgageService-Stateless', {
    description: 'Mortgage service: HTTP API, functions, webhook queues and schedules',
    table: stateful.table,
  });
  const nagChecks = new AwsSolutionsChecks(app, { verbose: true });
  Validations.of(app).addPlugins(nagChecks);
  return { stateful, stateless, nagChecks };
}
