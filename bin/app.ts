import { App } from 'aws-cdk-lib';
import { addMortgageServiceStacks } from '../lib/mortgage-service-app';

// The stacks and the cdk-nag AwsSolutions checks (Validations.of(app).addPlugins) live in lib/.
const app = new App();
addMortgageServiceStacks(app);
app.synth();
