/** Certificate request controllers: approval of node client requests, and signing for the built-in signers. */
export { csrApprovingController } from './approving.js';
export { csrSigningController } from './signing.js';
