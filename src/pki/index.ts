export * from './certs.js';
export * from './pki.js';
export * from './kubeconfig.js';
export * from './client-auth.js';
