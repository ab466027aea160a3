import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { setApiLanguage } from './api';

// Portuguese (pt-BR) is the console's language by default; English is one click away. The
// Portuguese table is the source: a key missing in English is a type error.
const pt = {
  'app.name': 'Atende',
  'app.skip': 'Ir para o conteúdo',
  'lang.label': 'Idioma',
  'nav.inbox': 'Atendimento',
  'nav.simulator': 'Simulador',
  'nav.users': 'Usuários',
  'nav.teams': 'Equipes',
  'nav.channels': 'Canais',
  'nav.apiKeys': 'Chaves de API',
  'nav.webhooks': 'Webhooks',
  'nav.admin': 'Administração',
  'nav.logout': 'Sair',
  'nav.menu': 'Menu',
  'login.title': 'Entrar no Atende',
  'login.email': 'E-mail',
  'login.password': 'Senha',
  'login.submit': 'Entrar',
  'login.failed': 'E-mail ou senha inválidos',
  'login.expired': 'Sua sessão terminou. Entre novamente.',
  'login.noUsers':
    'Esta instalação ainda não tem usuários. Crie o primeiro administrador no servidor (com o PostgreSQL embutido, pare o servidor antes):',
  'login.noUsersEnv':
    'Ou inicie o servidor com ATENDE_ADMIN_EMAIL e ATENDE_ADMIN_PASSWORD. O npm run demo cria uma conta de demonstração com logins próprios.',
  'conn.reconnecting': 'Reconectando…',
  'conn.offline': 'Sem conexão em tempo real. Tentando novamente…',
  'conn.online': 'Conectado',
  'conn.resynced': 'Conexão restabelecida',
  'inbox.waiting': 'Espera',
  'inbox.mine': 'Em Atendimento',
  'inbox.empty.waiting': 'Nenhuma conversa na fila',
  'inbox.empty.mine': 'Nenhuma conversa em atendimento',
  'inbox.pick': 'Escolha uma conversa na lista',
  'inbox.unread': '{n} não lidas',
  'inbox.lists': 'Listas de conversas',
  'chat.capture': 'Capturar',
  'chat.transfer': 'Transferir',
  'chat.close': 'Encerrar',
  'chat.back': 'Voltar',
  'chat.closeConfirm': 'Encerrar esta conversa?',
  'chat.closed': 'Conversa encerrada',
  'chat.loadingOlder': 'Carregando mensagens anteriores…',
  'chat.loadOlder': 'Carregar mensagens anteriores',
  'chat.start': 'Início da conversa',
  'chat.history': 'Mensagens com {name}',
  'chat.composer': 'Mensagem',
  'chat.composerHint': 'Escreva uma mensagem (Enter envia, Shift+Enter quebra linha)',
  'chat.composerPlaceholder': 'Escreva uma mensagem',
  'chat.send': 'Enviar',
  'chat.attach': 'Anexar arquivo',
  'chat.removeAttachment': 'Remover anexo',
  'chat.captureToReply': 'Capture a conversa para responder',
  'chat.notYours': 'Esta conversa está com outro atendente',
  'chat.queue': 'Fila',
  'queue.waiting': 'Espera',
  'queue.attending': 'Em Atendimento',
  'queue.observation': 'Observação',
  'queue.automation': 'Automação',
  'queue.api': 'API',
  'kind.image': 'Imagem',
  'kind.video': 'Vídeo',
  'kind.audio': 'Áudio',
  'kind.document': 'Documento',
  'kind.sticker': 'Figurinha',
  'kind.location': 'Localização',
  'kind.contacts': 'Contato',
  'kind.interactive': 'Resposta interativa',
  'kind.button': 'Botão',
  'kind.template': 'Modelo',
  'kind.reaction': 'Reação',
  'kind.order': 'Pedido',
  'kind.system': 'Aviso do sistema',
  'kind.unsupported': 'Mensagem não suportada',
  'chat.team': 'Equipe',
  'chat.attendant': 'Atendente',
  'chat.nobody': 'ninguém',
  'chat.you': 'Você',
  'chat.status': 'Situação',
  'chat.statusClosed': 'Encerrada',
  'chat.lastAttendant': 'Último atendente',
  'chat.fileUnsupported':
    'Tipo de arquivo não suportado: {ext}. Envie imagem, vídeo, áudio, PDF ou documento do Office.',
  'chat.customer': 'Cliente',
  'chat.api': 'API',
  'chat.system': 'Sistema',
  'chat.captured': 'Conversa capturada',
  'chat.transferred': 'Conversa transferida',
  'chat.gone': 'Esta conversa saiu da sua lista',
  'chat.draft': 'Rascunho',
  'window.open': 'Janela de 24 h aberta — fecha em {left}',
  'window.closed': 'Janela de 24 h fechada — envie um modelo',
  'window.closedHint':
    'O cliente não escreveu nas últimas 24 horas: só um modelo (template) aprovado chega até ele.',
  'window.hours': '{h} h',
  'window.minutes': '{m} min',
  'template.open': 'Enviar modelo',
  'template.use': 'Usar modelo',
  'template.title': 'Enviar um modelo (template)',
  'template.pick': 'Modelo aprovado',
  'template.pickOne': 'Escolha um modelo',
  'template.byHand': 'Digitar o modelo',
  'template.fromList': 'Escolher da lista',
  'template.none': 'O canal não lista modelos: digite o nome, o idioma e os valores.',
  'template.empty': 'Nenhum modelo aprovado neste canal.',
  'template.loadFailed': 'Não foi possível carregar os modelos: {error}',
  'template.name': 'Nome do modelo',
  'template.language': 'Idioma',
  'template.header': 'Cabeçalho {name}',
  'template.body': 'Corpo {name}',
  'template.button': 'Botão {index} {name}',
  'template.bodyValues': 'Valores do corpo (um por linha)',
  'template.preview': 'Prévia',
  'template.send': 'Enviar modelo',
  'template.loading': 'Carregando modelos…',
  'template.message': 'Modelo {name}',
  'status.queued': 'Na fila de envio',
  'status.sent': 'Enviada',
  'status.delivered': 'Entregue',
  'status.read': 'Lida',
  'status.failed': 'Falhou',
  'status.received': 'Recebida',
  'status.processing': 'Processando',
  'media.pending': 'Baixando o arquivo…',
  'media.failed': 'Arquivo indisponível',
  'media.download': 'Baixar',
  'media.open': 'Abrir {name} em tamanho real',
  'media.image': 'imagem',
  'transfer.title': 'Transferir conversa',
  'transfer.toTeam': 'Para uma equipe',
  'transfer.toUser': 'Para um atendente',
  'transfer.team': 'Equipe',
  'transfer.user': 'Atendente',
  'transfer.reasonCode': 'Código do motivo',
  'transfer.reason': 'Motivo',
  'transfer.submit': 'Transferir',
  'transfer.pickTeam': 'Escolha uma equipe',
  'transfer.pickUser': 'Escolha um atendente',
  'common.cancel': 'Cancelar',
  'common.save': 'Salvar',
  'common.create': 'Criar',
  'common.close': 'Fechar',
  'common.copy': 'Copiar',
  'common.copied': 'Copiado!',
  'common.loading': 'Carregando…',
  'common.error': 'Algo deu errado',
  'common.retry': 'Tentar novamente',
  'common.name': 'Nome',
  'common.email': 'E-mail',
  'common.status': 'Status',
  'common.actions': 'Ações',
  'common.yes': 'Sim',
  'common.no': 'Não',
  'common.all': 'Todos',
  'common.none': 'Nenhum',
  'common.edit': 'Editar',
  'common.delete': 'Excluir',
  'common.search': 'Filtrar',
  'common.clear': 'Limpar',
  'common.previous': 'Anterior',
  'common.next': 'Próxima',
  'common.page': 'Página {page} de {pages}',
  'common.createdAt': 'Criado em',
  'common.details': 'Detalhes',
  'common.unavailable': 'Este recurso ainda não está disponível neste servidor.',
  'common.shownOnce': 'Copie agora: este valor não será mostrado novamente.',
  'common.saved': 'Salvo',
  'notif.title': 'Notificações',
  'notif.empty': 'Nenhuma notificação',
  'notif.assigned': 'Uma conversa foi atribuída a você',
  'notif.assignedContact': 'Conversa com {contact} transferida para você',
  'notif.reason': 'Motivo: {reason}',
  'notif.webhookDisabled': 'Um webhook foi desativado após falhas: {url}',
  'notif.channelUnhealthy':
    'A Meta recusou o token do canal {name}: os envios estão parados até um novo token',
  'notif.markRead': 'Marcar como lida',
  'notif.openChat': 'Abrir conversa',
  'notif.open': 'Abrir notificações ({n} não lidas)',
  'role.admin': 'Administrador',
  'role.supervisor': 'Supervisor',
  'role.agent': 'Atendente',
  'ustatus.active': 'Ativo',
  'ustatus.onboarding': 'Em integração',
  'ustatus.cancelled': 'Cancelado',
  'tstatus.active': 'Ativa',
  'tstatus.inactive': 'Inativa',
  'users.title': 'Usuários',
  'users.new': 'Novo usuário',
  'users.password': 'Senha inicial',
  'users.role': 'Perfil',
  'teams.title': 'Equipes',
  'teams.new': 'Nova equipe',
  'teams.members': 'Membros',
  'teams.noMembers': 'Sem membros',
  'teams.editMembers': 'Membros de {name}',
  'channels.title': 'Canais',
  'channels.new': 'Novo canal',
  'channels.provider': 'Provedor',
  'channels.defaultTeam': 'Equipe padrão',
  'channels.queue': 'Fila de entrada',
  'channels.general': 'Geral',
  'channels.apiTab': 'API',
  'channels.phoneNumberId': 'Phone number ID',
  'channels.businessAccountId': 'ID da conta do WhatsApp Business (opcional)',
  'channels.businessAccountIdHint': 'Com ele, os atendentes escolhem os modelos aprovados da conta',
  'channels.accessToken': 'Access token',
  'channels.appSecret': 'App secret',
  'channels.verifyToken': 'Verify token',
  'channels.secretSet': 'definido (deixe em branco para manter)',
  'channels.api.enabled': 'API de envio habilitada',
  'channels.api.key': 'Chave do canal',
  'channels.api.hasKey': 'Uma chave foi gerada. Gerar outra invalida a anterior imediatamente.',
  'channels.api.noKey': 'Nenhuma chave gerada.',
  'channels.api.generate': 'Gerar chave',
  'channels.api.regenerate': 'Gerar nova chave',
  'channels.api.regenerateConfirm': 'Gerar uma nova chave? A chave atual deixará de funcionar.',
  'channels.api.log': 'Registro de requisições',
  'channels.api.requestId': 'ID da requisição',
  'channels.api.flowId': 'Flow ID',
  'channels.api.contact': 'Contato',
  'channels.api.type': 'Tipo',
  'channels.api.attempts': 'Tentativas',
  'channels.api.error': 'Erro',
  'channels.api.metadata': 'Metadados',
  'channels.api.empty': 'Nenhuma requisição registrada',
  'channels.api.refresh': 'Atualizar',
  'channels.api.howto':
    'Envie mensagens com POST /channel-api/messages/send e o cabeçalho x-channel-api-key.',
  'channels.simulate': 'Abrir simulador',
  'keys.title': 'Chaves de API da conta',
  'keys.new': 'Nova chave',
  'keys.scopes': 'Escopos',
  'keys.channels': 'Canais',
  'keys.allChannels': 'Todos os canais',
  'keys.selectedChannels': 'Canais selecionados',
  'keys.lastUsed': 'Último uso',
  'keys.never': 'nunca',
  'keys.revoke': 'Revogar',
  'keys.revoked': 'Revogada',
  'keys.revokeConfirm': 'Revogar a chave "{name}"? Ela deixará de funcionar imediatamente.',
  'keys.token': 'Token da chave',
  'hooks.title': 'Webhooks',
  'hooks.new': 'Novo webhook',
  'hooks.url': 'URL',
  'hooks.events': 'Eventos',
  'hooks.secret': 'Segredo (opcional)',
  'hooks.secretShown': 'Segredo de assinatura',
  'hooks.enabled': 'Ativo',
  'hooks.disable': 'Desativar',
  'hooks.enable': 'Ativar',
  'hooks.deliveries': 'Entregas',
  'hooks.replay': 'Reenviar',
  'hooks.replayed': 'Reenvio agendado',
  'hooks.noDeliveries': 'Nenhuma entrega ainda',
  'hooks.response': 'Resposta',
  'hooks.deleteConfirm': 'Excluir o webhook {url}?',
  'sim.title': 'Simulador de cliente',
  'sim.intro':
    'Faça o papel do cliente num canal sandbox: envie mensagens e veja as respostas do atendente em tempo real.',
  'sim.channel': 'Canal sandbox',
  'sim.noChannels': 'Nenhum canal sandbox. Crie um em Canais (provedor sandbox).',
  'sim.setup': 'Criar um canal sandbox',
  'sim.setupChannel': 'Sandbox',
  'sim.setupTeam': 'Atendimento',
  'sim.phone': 'Telefone do cliente',
  'sim.name': 'Nome do cliente',
  'sim.placeholder': 'Escreva como o cliente…',
  'sim.empty': 'Envie a primeira mensagem para abrir uma conversa.',
  'sim.openConsole': 'Abrir no atendimento',
  'sim.newChat': 'Nova conversa',
  'sim.agent': 'Atendente',
  'sim.as': 'Você é {name}',
  'sim.autoRead': 'O cliente lê as respostas (confirmação de leitura)',
  'sim.phoneLabel': 'Celular do cliente {name}',
  'sim.messages': 'Conversa do cliente',
  'sim.message': 'Mensagem do cliente',
  'sim.closed': 'O atendente encerrou a conversa. Uma nova mensagem abre outra.',
  'sim.hidden': 'A conversa foi para uma equipe que você não vê; suas mensagens continuam chegando a ela.',
  'time.now': 'agora',
} as const;

export type MessageKey = keyof typeof pt;

const en: Record<MessageKey, string> = {
  'app.name': 'Atende',
  'app.skip': 'Skip to content',
  'lang.label': 'Language',
  'nav.inbox': 'Inbox',
  'nav.simulator': 'Simulator',
  'nav.users': 'Users',
  'nav.teams': 'Teams',
  'nav.channels': 'Channels',
  'nav.apiKeys': 'API keys',
  'nav.webhooks': 'Webhooks',
  'nav.admin': 'Administration',
  'nav.logout': 'Log out',
  'nav.menu': 'Menu',
  'login.title': 'Log in to Atende',
  'login.email': 'Email',
  'login.password': 'Password',
  'login.submit': 'Log in',
  'login.failed': 'Invalid email or password',
  'login.expired': 'Your session ended. Please log in again.',
  'login.noUsers':
    'This installation has no user yet. Create the first admin on the server (with the embedded PostgreSQL, stop the server first):',
  'login.noUsersEnv':
    'Or start the server with ATENDE_ADMIN_EMAIL and ATENDE_ADMIN_PASSWORD set. npm run demo creates a demo account with logins of its own.',
  'conn.reconnecting': 'Reconnecting…',
  'conn.offline': 'No real-time connection. Retrying…',
  'conn.online': 'Connected',
  'conn.resynced': 'Connection restored',
  'inbox.waiting': 'Waiting',
  'inbox.mine': 'My chats',
  'inbox.empty.waiting': 'No conversations waiting',
  'inbox.empty.mine': 'No conversations in progress',
  'inbox.pick': 'Pick a conversation from the list',
  'inbox.unread': '{n} unread',
  'inbox.lists': 'Conversation lists',
  'chat.capture': 'Capture',
  'chat.transfer': 'Transfer',
  'chat.close': 'Close',
  'chat.back': 'Back',
  'chat.closeConfirm': 'Close this conversation?',
  'chat.closed': 'Conversation closed',
  'chat.loadingOlder': 'Loading older messages…',
  'chat.loadOlder': 'Load older messages',
  'chat.start': 'Start of the conversation',
  'chat.history': 'Messages with {name}',
  'chat.composer': 'Message',
  'chat.composerHint': 'Write a message (Enter sends, Shift+Enter for a new line)',
  'chat.composerPlaceholder': 'Write a message',
  'chat.send': 'Send',
  'chat.attach': 'Attach a file',
  'chat.removeAttachment': 'Remove attachment',
  'chat.captureToReply': 'Capture the conversation to reply',
  'chat.notYours': 'Another agent is attending this conversation',
  'chat.queue': 'Queue',
  'queue.waiting': 'Waiting',
  'queue.attending': 'In service',
  'queue.observation': 'Observation',
  'queue.automation': 'Automation',
  'queue.api': 'API',
  'kind.image': 'Image',
  'kind.video': 'Video',
  'kind.audio': 'Audio',
  'kind.document': 'Document',
  'kind.sticker': 'Sticker',
  'kind.location': 'Location',
  'kind.contacts': 'Contact',
  'kind.interactive': 'Interactive reply',
  'kind.button': 'Button',
  'kind.template': 'Template',
  'kind.reaction': 'Reaction',
  'kind.order': 'Order',
  'kind.system': 'System notice',
  'kind.unsupported': 'Unsupported message',
  'chat.team': 'Team',
  'chat.attendant': 'Agent',
  'chat.nobody': 'nobody',
  'chat.you': 'You',
  'chat.status': 'Status',
  'chat.statusClosed': 'Closed',
  'chat.lastAttendant': 'Last agent',
  'chat.fileUnsupported':
    'Unsupported file type: {ext}. Send an image, video, audio, PDF or Office document.',
  'chat.customer': 'Customer',
  'chat.api': 'API',
  'chat.system': 'System',
  'chat.captured': 'Conversation captured',
  'chat.transferred': 'Conversation transferred',
  'chat.gone': 'This conversation left your list',
  'chat.draft': 'Draft',
  'window.open': '24-hour window open — closes in {left}',
  'window.closed': '24-hour window closed — send a template',
  'window.closedHint':
    'The customer has not written in the last 24 hours: only an approved template reaches them.',
  'window.hours': '{h} h',
  'window.minutes': '{m} min',
  'template.open': 'Send template',
  'template.use': 'Use a template',
  'template.title': 'Send a template',
  'template.pick': 'Approved template',
  'template.pickOne': 'Pick a template',
  'template.byHand': 'Type the template',
  'template.fromList': 'Pick from the list',
  'template.none': 'This channel does not list templates: type the name, language and values.',
  'template.empty': 'No approved template on this channel.',
  'template.loadFailed': 'The templates could not be loaded: {error}',
  'template.name': 'Template name',
  'template.language': 'Language',
  'template.header': 'Header {name}',
  'template.body': 'Body {name}',
  'template.button': 'Button {index} {name}',
  'template.bodyValues': 'Body values (one per line)',
  'template.preview': 'Preview',
  'template.send': 'Send template',
  'template.loading': 'Loading templates…',
  'template.message': 'Template {name}',
  'status.queued': 'Queued for sending',
  'status.sent': 'Sent',
  'status.delivered': 'Delivered',
  'status.read': 'Read',
  'status.failed': 'Failed',
  'status.received': 'Received',
  'status.processing': 'Processing',
  'media.pending': 'Downloading the file…',
  'media.failed': 'File unavailable',
  'media.download': 'Download',
  'media.open': 'Open {name} full size',
  'media.image': 'image',
  'transfer.title': 'Transfer conversation',
  'transfer.toTeam': 'To a team',
  'transfer.toUser': 'To an agent',
  'transfer.team': 'Team',
  'transfer.user': 'Agent',
  'transfer.reasonCode': 'Reason code',
  'transfer.reason': 'Reason',
  'transfer.submit': 'Transfer',
  'transfer.pickTeam': 'Pick a team',
  'transfer.pickUser': 'Pick an agent',
  'common.cancel': 'Cancel',
  'common.save': 'Save',
  'common.create': 'Create',
  'common.close': 'Close',
  'common.copy': 'Copy',
  'common.copied': 'Copied!',
  'common.loading': 'Loading…',
  'common.error': 'Something went wrong',
  'common.retry': 'Try again',
  'common.name': 'Name',
  'common.email': 'Email',
  'common.status': 'Status',
  'common.actions': 'Actions',
  'common.yes': 'Yes',
  'common.no': 'No',
  'common.all': 'All',
  'common.none': 'None',
  'common.edit': 'Edit',
  'common.delete': 'Delete',
  'common.search': 'Filter',
  'common.clear': 'Clear',
  'common.previous': 'Previous',
  'common.next': 'Next',
  'common.page': 'Page {page} of {pages}',
  'common.createdAt': 'Created',
  'common.details': 'Details',
  'common.unavailable': 'This feature is not available on this server yet.',
  'common.shownOnce': 'Copy it now: it will not be shown again.',
  'common.saved': 'Saved',
  'notif.title': 'Notifications',
  'notif.empty': 'No notifications',
  'notif.assigned': 'A conversation was assigned to you',
  'notif.assignedContact': 'Conversation with {contact} transferred to you',
  'notif.reason': 'Reason: {reason}',
  'notif.webhookDisabled': 'A webhook was disabled after failing: {url}',
  'notif.channelUnhealthy':
    "Meta refused channel {name}'s token: sending is stopped until a new token is saved",
  'notif.markRead': 'Mark as read',
  'notif.openChat': 'Open conversation',
  'notif.open': 'Open notifications ({n} unread)',
  'role.admin': 'Admin',
  'role.supervisor': 'Supervisor',
  'role.agent': 'Agent',
  'ustatus.active': 'Active',
  'ustatus.onboarding': 'Onboarding',
  'ustatus.cancelled': 'Cancelled',
  'tstatus.active': 'Active',
  'tstatus.inactive': 'Inactive',
  'users.title': 'Users',
  'users.new': 'New user',
  'users.password': 'Initial password',
  'users.role': 'Role',
  'teams.title': 'Teams',
  'teams.new': 'New team',
  'teams.members': 'Members',
  'teams.noMembers': 'No members',
  'teams.editMembers': 'Members of {name}',
  'channels.title': 'Channels',
  'channels.new': 'New channel',
  'channels.provider': 'Provider',
  'channels.defaultTeam': 'Default team',
  'channels.queue': 'Inbound queue',
  'channels.general': 'General',
  'channels.apiTab': 'API',
  'channels.phoneNumberId': 'Phone number ID',
  'channels.businessAccountId': 'WhatsApp Business Account ID (optional)',
  'channels.businessAccountIdHint': "With it, agents pick the account's approved templates",
  'channels.accessToken': 'Access token',
  'channels.appSecret': 'App secret',
  'channels.verifyToken': 'Verify token',
  'channels.secretSet': 'set (leave empty to keep it)',
  'channels.api.enabled': 'Send API enabled',
  'channels.api.key': 'Channel key',
  'channels.api.hasKey': 'A key was generated. Generating another stops the previous one at once.',
  'channels.api.noKey': 'No key generated yet.',
  'channels.api.generate': 'Generate key',
  'channels.api.regenerate': 'Generate a new key',
  'channels.api.regenerateConfirm': 'Generate a new key? The current key will stop working.',
  'channels.api.log': 'Request log',
  'channels.api.requestId': 'Request ID',
  'channels.api.flowId': 'Flow ID',
  'channels.api.contact': 'Contact',
  'channels.api.type': 'Type',
  'channels.api.attempts': 'Attempts',
  'channels.api.error': 'Error',
  'channels.api.metadata': 'Metadata',
  'channels.api.empty': 'No requests logged',
  'channels.api.refresh': 'Refresh',
  'channels.api.howto':
    'Send messages with POST /channel-api/messages/send and the x-channel-api-key header.',
  'channels.simulate': 'Open simulator',
  'keys.title': 'Account API keys',
  'keys.new': 'New key',
  'keys.scopes': 'Scopes',
  'keys.channels': 'Channels',
  'keys.allChannels': 'All channels',
  'keys.selectedChannels': 'Selected channels',
  'keys.lastUsed': 'Last used',
  'keys.never': 'never',
  'keys.revoke': 'Revoke',
  'keys.revoked': 'Revoked',
  'keys.revokeConfirm': 'Revoke the key "{name}"? It stops working at once.',
  'keys.token': 'Key token',
  'hooks.title': 'Webhooks',
  'hooks.new': 'New webhook',
  'hooks.url': 'URL',
  'hooks.events': 'Events',
  'hooks.secret': 'Secret (optional)',
  'hooks.secretShown': 'Signing secret',
  'hooks.enabled': 'Enabled',
  'hooks.disable': 'Disable',
  'hooks.enable': 'Enable',
  'hooks.deliveries': 'Deliveries',
  'hooks.replay': 'Replay',
  'hooks.replayed': 'Replay scheduled',
  'hooks.noDeliveries': 'No deliveries yet',
  'hooks.response': 'Response',
  'hooks.deleteConfirm': 'Delete the webhook {url}?',
  'sim.title': 'Customer simulator',
  'sim.intro': "Play the customer on a sandbox channel: send messages and see the agent's replies live.",
  'sim.channel': 'Sandbox channel',
  'sim.noChannels': 'No sandbox channel. Create one under Channels (sandbox provider).',
  'sim.setup': 'Create a sandbox channel',
  'sim.setupChannel': 'Sandbox',
  'sim.setupTeam': 'Support',
  'sim.phone': "Customer's phone",
  'sim.name': "Customer's name",
  'sim.placeholder': 'Write as the customer…',
  'sim.empty': 'Send the first message to open a conversation.',
  'sim.openConsole': 'Open in the inbox',
  'sim.newChat': 'New conversation',
  'sim.agent': 'Agent',
  'sim.as': 'You are {name}',
  'sim.autoRead': 'The customer reads the replies (read receipt)',
  'sim.phoneLabel': "{name}'s phone",
  'sim.messages': "The customer's conversation",
  'sim.message': "Customer's message",
  'sim.closed': 'The agent closed the conversation. A new message opens another one.',
  'sim.hidden': 'The conversation went to a team you do not see; your messages still reach it.',
  'time.now': 'now',
};

export type Lang = 'pt-BR' | 'en';
export const LANGS: Lang[] = ['pt-BR', 'en'];

export function isMessageKey(key: string): key is MessageKey {
  return Object.hasOwn(pt, key);
}

/**
 * A screen's own strings, outside the shared table: `const m = useMessages(TABLE)` then `m('key')`.
 * The table gives every key in both languages.
 */
export function useMessages<K extends string>(tables: Record<Lang, Record<K, string>>) {
  const { lang } = useI18n();
  return useCallback(
    (key: K, vars?: Record<string, string | number>) => {
      let s = tables[lang][key];
      if (vars) for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, String(v));
      return s;
    },
    [tables, lang],
  );
}
/**
 * Queue names are stored and sent in Portuguese (the API's values: `Espera`, `Em Atendimento`…);
 * where one is a label it reads in the console's language. A queue a channel names otherwise shows as
 * it is.
 */
const QUEUE_KEYS: Record<string, MessageKey> = {
  Espera: 'queue.waiting',
  'Em Atendimento': 'queue.attending',
  Observação: 'queue.observation',
  Automação: 'queue.automation',
  API: 'queue.api',
};

export function queueLabel(t: Translate, queue: string): string {
  const key = QUEUE_KEYS[queue];
  return key ? t(key) : queue;
}

const KIND_KEYS: Record<string, MessageKey> = {
  image: 'kind.image',
  video: 'kind.video',
  audio: 'kind.audio',
  document: 'kind.document',
  sticker: 'kind.sticker',
  location: 'kind.location',
  contacts: 'kind.contacts',
  interactive: 'kind.interactive',
  button: 'kind.button',
  template: 'kind.template',
  reaction: 'kind.reaction',
  order: 'kind.order',
  system: 'kind.system',
  unsupported: 'kind.unsupported',
};

/** A message type (`document`, `location`…) in the console's language; an unknown one as it is. */
export function kindLabel(t: Translate, kind: string): string {
  const key = KIND_KEYS[kind];
  return key ? t(key) : kind;
}

/**
 * A chat's last-message summary as the server writes it for what is not text — `[image]`,
 * `[document] caption`, `[location] place` — with the bracketed type named in the console's
 * language: `Documento: caption`. A text message is shown as typed, brackets and all.
 */
export function summaryLabel(t: Translate, content: string, type?: string): string {
  if (type === 'text') return content;
  const m = /^\[([a-z_]+)\](?: ([\s\S]*))?$/.exec(content);
  if (!m?.[1] || !Object.hasOwn(KIND_KEYS, m[1])) return content;
  const label = kindLabel(t, m[1]);
  return m[2] ? `${label}: ${m[2]}` : label;
}

const TABLES: Record<Lang, Record<MessageKey, string>> = { 'pt-BR': pt, en };
const STORAGE_KEY = 'atende.lang';

export type Translate = (key: MessageKey, vars?: Record<string, string | number>) => string;

export interface I18n {
  lang: Lang;
  setLang(lang: Lang): void;
  t: Translate;
  /** Like `t` for a key held in a plain string (e.g. a nav entry's labelKey); unknown keys show as given. */
  tr(key: string, vars?: Record<string, string | number>): string;
  /** Dates and times in the language's format. */
  time(iso: string | null | undefined): string;
}

const I18nContext = createContext<I18n | null>(null);

function initialLang(): Lang {
  const saved = localStorage.getItem(STORAGE_KEY);
  const lang = saved === 'en' || saved === 'pt-BR' ? saved : 'pt-BR';
  // Before any screen's first request: children's effects run before this provider's.
  setApiLanguage(lang);
  return lang;
}

export function I18nProvider({ children }: { children: ReactNode }) {
  const [lang, setLangState] = useState<Lang>(initialLang);
  useEffect(() => {
    document.documentElement.lang = lang;
  }, [lang]);
  const setLang = useCallback((l: Lang) => {
    localStorage.setItem(STORAGE_KEY, l);
    setApiLanguage(l);
    setLangState(l);
  }, []);
  const value = useMemo<I18n>(() => {
    const table = TABLES[lang];
    const t: Translate = (key, vars) => {
      let s = table[key];
      if (vars) for (const [k, v] of Object.entries(vars)) s = s.replaceAll(`{${k}}`, String(v));
      return s;
    };
    const fmt = new Intl.DateTimeFormat(lang, { dateStyle: 'short', timeStyle: 'short' });
    const time = (iso: string | null | undefined) => {
      if (!iso) return '';
      const d = new Date(iso);
      return Number.isNaN(d.getTime()) ? '' : fmt.format(d);
    };
    const tr = (key: string, vars?: Record<string, string | number>) =>
      isMessageKey(key) ? t(key, vars) : key;
    return { lang, setLang, t, tr, time };
  }, [lang, setLang]);
  return <I18nContext.Provider value={value}>{children}</I18nContext.Provider>;
}

export function useI18n(): I18n {
  const v = useContext(I18nContext);
  if (!v) throw new Error('useI18n outside I18nProvider');
  return v;
}
